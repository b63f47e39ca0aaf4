// What the GGUF header says, and the plan for the current settings.
import { formatBytes, formatCount } from '../../lib/format.js';
import { useStore } from '../../store/index.js';
import { Empty } from '../Empty.js';
import { Kpi } from '../Kpi.js';
import { LayersTable, MetadataTable, QuantTable } from './InspectTables.js';
import { PlanPanel } from './PlanPanel.js';

export function InspectView() {
  const label = useStore((s) => s.modelLabel);
  const inspecting = useStore((s) => s.inspecting);
  const info = useStore((s) => s.inspection);
  const error = useStore((s) => s.inspectError);
  return (
    <div data-testid="inspect-view">
      {error ? (
        <div className="error-box" data-testid="inspect-error" role="alert">
          <div className="head">Could not read {label ?? 'this file'}</div>
          {error}
        </div>
      ) : inspecting ? (
        <Empty text={`Reading ${label ?? 'the model'}…`} />
      ) : !info ? (
        <Empty text="Drop a .gguf model anywhere on this window, pick one with “Open file…”, or choose one on the left." />
      ) : (
        <>
          <div className="view-head">
            <h2 data-testid="model-name">{info.name}</h2>
            <span className="badge" data-testid="model-arch">
              {info.arch}
            </span>
            {info.shards.length > 1 && <span className="badge">{info.shards.length} shards</span>}
          </div>
          <div className="kpis">
            <Kpi label="parameters" value={formatCount(info.nParams)} />
            <Kpi label="file size" value={formatBytes(info.fileBytes)} />
            <Kpi label="tensor bytes" value={formatBytes(info.tensorBytes)} />
            <Kpi label="layers" value={String(info.layers.length)} />
            <Kpi label="train context" value={info.ctxTrain === null ? '—' : String(info.ctxTrain)} />
            <Kpi label="tokenizer" value={`${info.tokenizer ?? '—'}${info.vocabSize ? ` · ${info.vocabSize}` : ''}`} />
          </div>
          <PlanPanel />
          <div className="grid2">
            <div className="panel">
              <h4>Quantization</h4>
              <QuantTable rows={info.quant} />
            </div>
            <div className="panel">
              <h4>Chat template</h4>
              {info.chatTemplate ? <pre className="template">{info.chatTemplate}</pre> : <Empty text="This model has no chat template." />}
            </div>
          </div>
          <div className="panel">
            <h4>
              Layers<span className="spacer" />
              <span className="dim">non-layer tensors {formatBytes(info.persistentBytes)}</span>
            </h4>
            <LayersTable layers={info.layers} />
          </div>
          <div className="panel">
            <h4>Metadata ({info.metadata.length} keys)</h4>
            <MetadataTable rows={info.metadata} />
          </div>
        </>
      )}
    </div>
  );
}
