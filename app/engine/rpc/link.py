"""A model's RPC servers, from before its load to after its free (used by LoadedModel).

Order of a load with ``--rpc``:

1. every server is probed (TCP connect and HELLO, a short timeout): an
   unreachable server or another protocol version is one line naming it, before
   llama.cpp tries (it would end the process).  A server a loaded model is
   connected to is not: llama.cpp shares that connection (one per endpoint);
   if that connection is dead, the endpoint gets a fresh spelling (rpc_abort);
2. each server's devices come from ``ggml_backend_rpc_add_server`` and go to
   ``llama_model_params.devices`` (RPC devices first, then local GPUs), with
   ``--tensor-split`` as ``tensor_split``: llama.cpp places the layers itself,
   ``n_gpu_layers`` of them on these devices, split in proportion to the split
   (default: to each device's free memory);
3. during the load every connection gets the deadline as it opens, and one that
   takes nothing for the deadline is shut down (:mod:`app.engine.rpc.stall`);
4. after the load, the watch finds llama.cpp's connection to each server, and
   the buffer sizes llama.cpp logged give the memory used on each.
"""
from __future__ import annotations

import ctypes
from contextlib import contextmanager

from app.engine.face.model_info import ServerUsage
from app.engine.rpc import abort as rpc_abort
from app.engine.rpc import ggml as rpc
from app.engine.rpc.endpoints import probe, resolve
from app.engine.rpc.stall import LoadGuard
from app.engine.rpc.usage import BufferSizes
from app.engine.rpc.watch import DEADLINE_S, ServerWatch


class RpcLink:
    def __init__(self, endpoints, tensor_split=()):
        self.endpoints = tuple(endpoints)
        self.tensor_split = tuple(tensor_split)
        self.devices: dict[str, list[rpc.RpcDevice]] = {}  # endpoint -> its devices
        self.watch = ServerWatch(())
        self.sizes = BufferSizes()
        self._arrays: list = []  # ctypes arrays llama.cpp reads during the load
        self.guard: LoadGuard | None = None  # while llama.cpp loads the model onto the servers

    def prepare(self, params) -> None:
        """Probe the servers and point ``params`` at their devices (ModelLoadError names a bad one)."""
        split = rpc.tensor_split_array(self.tensor_split)
        if split is not None:
            params.tensor_split = split
            self._arrays.append(split)
        if not self.endpoints:
            return
        for endpoint in self.endpoints:
            if rpc_abort.held_connection(endpoint) != "alive":
                probe(endpoint)
        rpc_abort.install()
        rpc_abort.track(self)  # from here on, a failure inside llama.cpp is reported (rpc_abort)
        handles = []
        try:
            for endpoint in self.endpoints:
                self.devices[endpoint] = rpc.server_devices(rpc_abort.spelling(endpoint))
                handles += [d.handle for d in self.devices[endpoint]]
            handles += rpc.local_offload_devices()
        except Exception:
            self.close()
            raise
        self.watch = ServerWatch(self.endpoints)  # connected now: every wait on them, the load's too, has a deadline
        devices = (ctypes.c_void_p * (len(handles) + 1))(*handles, None)
        params.devices = ctypes.cast(devices, ctypes.c_void_p)
        self._arrays.append(devices)

    @contextmanager
    def loading(self):
        """Around llama.cpp's load: a server that stops answering ends the load within the deadline
        (:mod:`app.engine.rpc.stall`), as a lost one does."""
        if not self.endpoints:
            yield
            return
        self.guard = LoadGuard({e: resolve(e) for e in self.endpoints}, DEADLINE_S)
        try:
            with self.guard:
                yield
        finally:
            self.guard = None

    def tick(self) -> None:
        """The load moved on (llama.cpp's progress callback): what the load's guard counts as life."""
        if self.guard is not None:
            self.guard.tick()

    @property
    def frozen(self) -> str | None:
        """The server the load's guard found taking nothing (None: none, or no load under way)."""
        return None if self.guard is None else self.guard.frozen

    def loaded(self) -> None:
        """The load is done: find the connections, drop the arrays."""
        self._arrays.clear()
        if self.endpoints:
            self.watch = ServerWatch(self.endpoints)

    def check(self) -> None:
        """RpcServerLost if a server has gone away (between decodes only)."""
        if self.endpoints:
            self.watch.check()

    @property
    def lost(self) -> str | None:
        return self.watch.lost

    def context_made(self) -> None:
        self.watch.refresh()

    def sink_lost(self) -> None:
        """Before freeing anything: a dead server's connection swallows the frees."""
        self.watch.sink_lost()

    def servers(self) -> tuple[ServerUsage, ...]:
        """Each server, its devices, the memory llama.cpp put there and the total it reports."""
        alive = self.watch.first_lost() is None
        out = []
        for endpoint in self.endpoints:
            devices = self.devices.get(endpoint, [])
            total = sum(d.memory()[1] for d in devices) if alive else 0
            out.append(ServerUsage(endpoint, tuple(d.name for d in devices), self.sizes.used(endpoint), total))
        return tuple(out)

    def device_names(self) -> tuple[str, ...]:
        """The servers' devices, in the order the offloaded layers go to them (local GPUs follow)."""
        return tuple(d.name for endpoint in self.endpoints for d in self.devices.get(endpoint, []))

    def abandon(self) -> None:
        """Called by rpc_abort after llama.cpp failed: end every connection, so the servers free
        what they held; this model is never used or freed again."""
        self.watch.shut_down()

    def close(self) -> None:
        """After the model is freed."""
        rpc_abort.untrack(self)
        self.watch.close()
