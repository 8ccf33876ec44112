"""The Model page's RPC servers field and the status bar's servers (fake backend; no server is contacted)."""
from __future__ import annotations

import dataclasses

from app.engine.face.model_info import ServerUsage


def test_a_bad_server_list_is_one_line_and_loads_nothing(window):
    page = window.controls.model_page
    page.rpc.setText("127.0.0.1")
    page.load(None)
    assert window.state.problem == "--rpc: '127.0.0.1' is not host:port" and not window.state.loading
    page.rpc.setText("127.0.0.1:5000")
    page.tensor_split.setText("1,x")
    page.load(None)
    assert window.state.problem == "--tensor-split: 'x' is not a number" and not window.state.loading


def test_the_servers_and_split_go_with_the_load(qtbot, window, monkeypatch):
    page = window.controls.model_page
    asked = []
    monkeypatch.setattr(window.playground.runs, "load_model", lambda *args: asked.append(args))
    page.rpc.setText(" 127.0.0.1:5000,127.0.0.1:5001 ")
    page.tensor_split.setText("3/1")
    page.reload_button.click()
    assert asked == [(page.path, None, ("127.0.0.1:5000", "127.0.0.1:5001"), (3.0, 1.0))]
    page.rpc.setText("")  # empty: the fallback, this computer only
    page.tensor_split.setText("")
    page.reload_button.click()
    assert asked[-1][2:] == ((), ())


def test_the_status_bar_shows_each_server_and_the_memory_used_there(window):
    servers = (ServerUsage("127.0.0.1:5000", ("RPC0",), 36 * 2**20, 24 * 2**30),
               ServerUsage("127.0.0.1:5001", ("RPC1",), 199 * 2**20, 0))
    window.state.set_model(dataclasses.replace(window.state.model, servers=servers))
    text = window.status.model.text()
    assert "RPC 127.0.0.1:5000: 36 MiB used (RPC0, of 24.0 GiB)" in text
    assert "RPC 127.0.0.1:5001: 199 MiB used (RPC1)" in text
    assert "127.0.0.1:5001: 199 MiB used" in window.controls.model_page.info.text()


def test_the_model_pages_fields_are_the_states(window):
    page = window.controls.model_page
    page.rpc.setText("127.0.0.1:5000")
    page.gpu_layers.setValue(12)
    form = window.state.model_form
    assert (form.rpc, form.gpu_layers) == ("127.0.0.1:5000", 12)
    window.state.set_model_form(tensor_split="2,1", recent=("/models/a.gguf", "/models/b.gguf"))
    assert page.tensor_split.text() == "2,1"
    assert [page.recent.itemText(i) for i in range(page.recent.count())] == ["a.gguf", "b.gguf"]


def test_a_loaded_model_is_remembered_in_the_recent_file(qtbot, window, tmp_path):
    from app.core.recent import RecentModels

    recent = RecentModels(tmp_path / "recent.json")
    window.playground.runs.recent = recent
    window.controls.model_page.load(None)
    qtbot.waitUntil(lambda: not window.state.loading, timeout=20_000)
    assert recent.paths() == [window.state.model.path] == list(window.state.model_form.recent)


def test_a_tensor_split_without_servers_on_one_gpu_is_the_clis_line_and_stops_nothing(window, monkeypatch):
    """The CLI's -ts check (app.engine.face.endpoints.tensor_split_problem), asked before the load stops a run."""
    from app.cli.args import UsageError, check_tensor_split, run_parser

    page = window.controls.model_page
    asked = []
    monkeypatch.setattr(window.playground.runs, "load_model", lambda *args: asked.append(args))
    for gpus in (0, 1):
        window.state.set_model(dataclasses.replace(window.state.model, local_gpus=gpus))
        page.rpc.setText("")
        page.tensor_split.setText("1,2")
        page.reload_button.click()
        try:
            check_tensor_split(run_parser().parse_args(["-ts", "1,2"]), gpus)
        except UsageError as exc:
            cli_line = str(exc)
        assert window.state.problem == cli_line and "without --rpc" in cli_line and asked == []
    window.state.set_model(dataclasses.replace(window.state.model, local_gpus=2))
    page.reload_button.click()
    assert asked[-1][3] == (1.0, 2.0)  # two GPUs: the split means something
    window.state.set_model(dataclasses.replace(window.state.model, local_gpus=0))
    page.rpc.setText("127.0.0.1:5000")
    page.reload_button.click()
    assert asked[-1][2:] == (("127.0.0.1:5000",), (1.0, 2.0))  # with servers it splits among them
