// Run settings: llama.cpp RPC nodes (other machines running `ramforge rpc-server`) that hold the
// last layers in their RAM. The list is checked where settings are (the main process), and each
// node is asked what it holds when the plan is made.
import { useState } from 'react';
import { useStore } from '../store/index.js';

export function RpcSettings() {
  const rpc = useStore((s) => s.settings.rpc);
  const setSettings = useStore((s) => s.setSettings);
  const [text, setText] = useState(rpc.join(', '));
  const apply = (v: string) =>
    setSettings({
      rpc: v
        .split(/[,\s]+/)
        .map((x) => x.trim())
        .filter((x) => x.length > 0),
    });
  return (
    <label className="field wide" title="host:port of each `ramforge rpc-server` (trusted networks only: llama.cpp's RPC protocol has no authentication). Their layers and KV live in their RAM; empty: this machine only.">
      <span>RPC nodes</span>
      <input
        type="text"
        data-testid="setting-rpc"
        placeholder="none (e.g. 192.168.1.20:50052)"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onBlur={(e) => apply(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Enter' && apply(e.currentTarget.value)}
      />
    </label>
  );
}
