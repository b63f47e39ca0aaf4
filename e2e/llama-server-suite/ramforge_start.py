# A pytest plugin (`-p ramforge_start`) that makes llama.cpp's server test suite start
# `ramforge serve --api` in place of llama-server: ServerProcess.start is replaced, nothing else.
# Each fixture's options become serve's flags where serve has one; the models are the synthetic
# ones scripts/llama-server-suite.mjs prepared (RAMFORGE_SUITE_MODELS), one per preset, named
# after the preset's alias so /v1/models lists the name the suite expects. A fixture that asks
# for a chat template file gets the same synthetic model with that template written in
# (`ramforge synth --chat-template-file`), made once per template.
import hashlib
import os
import subprocess
import sys
import time

import utils

ROOT = os.environ["RAMFORGE_ROOT"]
MODELS = os.environ["RAMFORGE_SUITE_MODELS"]
CLI = [os.environ.get("RAMFORGE_NODE", "node"), os.path.join(ROOT, "bin", "ramforge.mjs")]

# preset (recognised by its Hugging Face repo and file) -> the prepared model's name; a preset
# missing here is a model kind serve cannot load (vision projector, a router with no model).
PRESET_MODELS = {
    ("ggml-org/test-model-stories260K", None): "tinyllama-2",
    ("ggml-org/models", "bert-bge-small/ggml-model-f16.gguf"): "bert-bge-small",
    ("ggml-org/test-model-stories260K-infill", None): "tinyllama-infill",
    ("ggml-org/stories15M_MOE", "stories15M_MOE-F16.gguf"): "stories15m-moe",
    ("ggml-org/models", "jina-reranker-v1-tiny-en/ggml-model-f16.gguf"): "jina-reranker",
}

# Options with no counterpart in serve that change what the server does; named in the log so a
# failing test says why. (The sampling defaults, temperature, seed and n_predict, are serve's
# --temp, --seed and --n-predict; serve renders the model's template with Jinja always.)
UNSUPPORTED = [
    "model_draft", "lora_files", "slot_save_path", "models_dir",
    "models_preset", "models_max", "no_models_autoload", "enable_ctx_shift", "spec_type",
    "sleep_idle_seconds", "server_tools", "mcp_servers_config", "mcp_servers_json", "ui_mcp_proxy",
    "gcp_compat", "mmproj_url", "media_path", "chat_template", "reasoning_format", "reasoning",
    "pooling", "kv_unified", "swa_full", "cache_ram", "backend_sampling", "n_ga",
]


# The --pooling values serve has.
SERVE_POOLING = ("mean", "none")


class StartRefused(RuntimeError):
    pass


def model_for(server) -> str:
    key = (server.model_hf_repo, server.model_hf_file)
    name = PRESET_MODELS.get(key)
    if server.model_file:
        return server.model_file
    if name is None:
        raise StartRefused(f"ramforge-suite: no synthetic model for preset {key} (a vision model, a router with none, or a file only its own setup downloads)")
    base = os.path.join(MODELS, name + ".gguf")
    if not server.chat_template_file:
        return base
    return with_template(name, server.chat_template_file)


def with_template(name: str, template_file: str) -> str:
    """The preset's model with this Jinja template, synthesized once (same seed as the base)."""
    with open(template_file, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    folder = os.path.join(MODELS, "templated", digest)
    path = os.path.join(folder, name + ".gguf")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        # The file's template takes the place of the preset's (synth takes one template).
        base = [a for a in synth_args(name) if a not in ("--tool-template", "--chat-template")]
        args = [*base, "--chat-template-file", os.path.abspath(template_file), "--out", path + ".part"]
        subprocess.run([*CLI, "synth", "--quiet", *args], check=True)
        os.replace(path + ".part", path)
    return path


def synth_args(name: str) -> list[str]:
    with open(os.path.join(MODELS, name + ".args")) as f:
        return f.read().split()


def serve_args(server, model: str) -> list[str]:
    args = ["serve", "--api", "--no-ui", "--api-port", str(server.server_port)]
    args += ["--api-host", server.server_host.split(",")[0].strip()]
    # llama-server's --ctx-size is the whole KV cache, shared out among its slots (without
    # --kv-unified); serve's --ctx is each sequence's.
    if server.n_ctx:
        args += ["--ctx", str(server.n_ctx // (server.n_slots or 1))]
    for field, flag in (("n_slots", "--parallel"), ("n_batch", "--batch"), ("n_threads", "--threads")):
        value = getattr(server, field)
        if value:
            args += [flag, str(value)]
    if server.api_key:
        args += ["--api-key", server.api_key]
    # The names the model is served under (llama-server's --alias and --tags).
    if server.model_alias:
        args += ["--alias", server.model_alias]
    if server.model_tags:
        args += ["--tags", server.model_tags]
    if server.cors_origins:
        args += ["--cors", server.cors_origins]
    if server.server_metrics:
        args += ["--metrics"]
    # llama-server's start function always passes --slots or --no-slots.
    args += ["--slots" if server.server_slots else "--no-slots"]
    # llama-server's --pooling: serve has mean (its default) and none; the others (last, cls,
    # rank) stay named as unsupported.
    if getattr(server, "pooling", None) in SERVE_POOLING:
        args += ["--pooling", server.pooling]
    # llama-server's server-wide sampling defaults (the suite always passes --temp and --seed).
    # llama-server's -1 (a random seed, no token limit) is serve's own default: nothing to pass.
    for field, flag in (("temperature", "--temp"), ("seed", "--seed"), ("n_predict", "--n-predict")):
        value = getattr(server, field, None)
        if value is not None and (value > 0 if field == "n_predict" else value >= 0):
            args += [flag, str(value)]
    return [*args, model]


def start(self, timeout_seconds: int = utils.DEFAULT_HTTP_TIMEOUT) -> None:
    ignored = [f for f in UNSUPPORTED if getattr(self, f, None) not in (None, False, 0, "") and not (f == "pooling" and self.pooling in SERVE_POOLING)]
    if "," in (self.server_host or ""):
        ignored.append("server_host (more than one address)")
    model = model_for(self)
    data = os.path.join(MODELS, "data", str(self.server_port))
    env = {**os.environ, "RAMFORGE_DATA": data, "RAMFORGE_API_KEY": ""}
    args = [*CLI, *serve_args(self, model)]
    print(f"tests: starting ramforge with: {' '.join(args)}")
    if ignored:
        print(f"tests: options serve has no counterpart for: {', '.join(ignored)}")
    self._log = open(self.log_path, "w") if self.log_path else sys.stdout
    self.process = subprocess.Popen(args, stdout=self._log, stderr=self._log, env=env)
    utils.server_instances.add(self)
    wait_ready(self, timeout_seconds)


def wait_ready(self, timeout_seconds: int) -> None:
    headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else None
    deadline = time.time() + timeout_seconds
    while time.time() < deadline:
        try:
            if self.make_request("GET", "/health", headers=headers).status_code == 200:
                self.ready = True
                return
        except Exception:
            pass
        if self.process.poll() is not None:
            raise RuntimeError(f"ramforge serve exited with code {self.process.returncode}")
        time.sleep(0.05)
    raise TimeoutError(f"ramforge serve did not load its model within {timeout_seconds} s")


def load_all() -> None:
    """The presets' models are prepared before pytest starts; nothing to download."""


utils.ServerProcess.start = start
utils.ServerPreset.load_all = staticmethod(load_all)
