"""The bundled model through llama.cpp's RPC servers (``python -m app rpc-server`` subprocesses on 127.0.0.1).

Token equality: 64 tokens with a fixed seed, all layers on one server and
then on two, equal the local CPU run *with llama.cpp's weight repacking off*
(llama-cli's ``--no-repack``).  With repacking on (the default), the local
CPU backend keeps the Q4_K/Q5_0 weights in interleaved "CPU_REPACK" buffers
whose matrix kernels sum in another order; an RPC server allocates plain
buffers of its device's default type and uses the generic kernels.  So the
RPC run rounds like the unrepacked local run, bit for bit, and only close to
the default one: the tests check both (same first tokens, logits within a
small tolerance).
"""
from __future__ import annotations

import time

import numpy as np
import pytest
from rpc_servers import RpcServer, port_is_free, unused_port

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.llama.context import DecodeContext
from app.engine.llama.model import LoadedModel
from app.engine.rpc.endpoints import PROTOCOL, RpcUnreachable, probe
from app.engine.run.generation import Generation
from app.engine.run.starts import tokenize_prompt
from sampler import SamplerSettings

pytestmark = [pytest.mark.rpc, pytest.mark.slow]

PROMPT = "Once upon a time"
N_TOKENS = 64
OPTIONS = RunOptions(max_tokens=N_TOKENS, n_ctx=256, n_threads=1)


@pytest.fixture(scope="module")
def servers():
    """Two servers for the module; afterwards both are gone and their ports free."""
    with RpcServer() as a, RpcServer() as b:
        yield a, b
    assert a.proc.poll() is not None and b.proc.poll() is not None
    assert port_is_free(a.port) and port_is_free(b.port)


def tokens_of(model) -> tuple[int, ...]:
    gen = Generation(model, PROMPT, [LaneConfig(SamplerSettings(seed=42))], OPTIONS)
    return gen.run()[0].tokens


def prompt_logits(model) -> np.ndarray:
    with DecodeContext(model, 1, RunOptions(n_ctx=64, n_threads=1)) as ctx:
        ctx.decode_tokens(0, tokenize_prompt(model, PROMPT), 0)
        return ctx.logits(-1).copy()


@pytest.fixture(scope="module")
def local_runs(model_path):
    """(tokens, prompt logits) of the local CPU run, repacked (the default) and not."""
    out = {}
    for repack in (True, False):
        with LoadedModel(model_path, gpu_layers=0, repack=repack) as model:
            out[repack] = tokens_of(model), prompt_logits(model)
    return out


def test_servers_answer_with_this_builds_protocol(servers):
    assert all(probe(s.endpoint) == PROTOCOL for s in servers)


@pytest.mark.parametrize("n_servers", [1, 2])
def test_64_tokens_through_rpc_equal_the_local_cpu_run(servers, local_runs, model_path, n_servers):
    endpoints = [s.endpoint for s in servers[:n_servers]]
    with LoadedModel(model_path, rpc=endpoints) as model:
        assert [s.endpoint for s in model.info.servers] == endpoints
        assert all(s.used_bytes > 0 for s in model.info.servers)  # layers on every server
        # what the status bar and the Model page say: every layer, on the servers' devices
        assert model.offload.offloaded == model.offload.total
        assert all(d in model.info.offload for s in model.info.servers for d in s.devices), model.info.offload
        tokens, logits = tokens_of(model), prompt_logits(model)
    plain_tokens, plain_logits = local_runs[False]
    assert len(tokens) == N_TOKENS and tokens == plain_tokens  # bit for bit: same kernels, same rounding
    assert np.array_equal(logits, plain_logits)
    repacked_tokens, repacked_logits = local_runs[True]
    # The default local run rounds differently (repacked kernels): close, not equal.  How close
    # depends on the build's CPU kernels; what holds: the same top token, the same shape.
    assert np.max(np.abs(logits - repacked_logits)) < 2.0
    assert np.corrcoef(logits, repacked_logits)[0, 1] > 0.999
    assert np.argmax(logits) == np.argmax(repacked_logits) and tokens[0] == repacked_tokens[0]


def test_each_server_shows_its_devices_and_the_memory_used_there(servers, model_path):
    endpoints = [s.endpoint for s in servers]
    with LoadedModel(model_path, rpc=endpoints, tensor_split=(3, 1)) as model:
        first, second = model.info.servers
        assert first.devices and second.devices and first.devices != second.devices
        assert first.total_bytes > 0
        # 3:1 puts most repeating layers on the first server (the output layer goes to the last device)
        assert first.used_bytes > 0 and second.used_bytes > 0
        assert first.label().startswith(f"{first.endpoint}: ") and "MiB used" in first.label()
        before = first.used_bytes
        with model.new_context(1, RunOptions(n_ctx=256, n_threads=1)):
            assert model.rpc.servers()[0].used_bytes > before  # its KV cache and compute buffer
    with LoadedModel(model_path, rpc=endpoints, tensor_split=(1, 3)) as model:
        assert model.info.servers[0].used_bytes < first.used_bytes


def test_an_unreachable_server_is_one_line_naming_it_before_llama_tries(model_path, servers):
    endpoint = f"127.0.0.1:{unused_port()}"
    t0 = time.monotonic()
    with pytest.raises(RpcUnreachable) as info:
        LoadedModel(model_path, rpc=[servers[0].endpoint, endpoint])
    assert time.monotonic() - t0 < 10
    assert str(info.value) == f"RPC server {endpoint}: nothing is listening there (connection refused)"
