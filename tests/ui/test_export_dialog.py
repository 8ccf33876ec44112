"""The export dialog (program, prompt inline or in a file, the four tabs, copy and save) and the import
dialog's notes, on the fake backend."""
from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

from PySide6.QtGui import QGuiApplication

from app.core.llamacpp import import_command, process_escapes
from app.ui.dialogs import ExportDialog, ImportDialog
from sampler import SamplerSettings

PROMPT = 'Line "one" \\ and\nline two\\n\n'


def open_export(window):
    window.actions.export.trigger()
    return window.actions.export_dialog


def set_mode(dialog, mode: str) -> None:
    for button in dialog.prompt_modes.buttons():
        if button.property("mode") == mode:
            button.setChecked(True)


def test_the_window_exports_its_run_options(qtbot, window):
    window.state.set_run_settings(max_tokens=21, n_ctx=768)
    window.playground.lanes.set_settings(0, SamplerSettings(seed=99, temp=0.55), None)
    dialog = open_export(window)
    args = shlex.split(dialog.command().splitlines()[-1])
    assert args[0] == "llama-completion"
    assert args[args.index("-n") + 1] == "21" and args[args.index("-c") + 1] == "768"
    assert args[args.index("-s") + 1] == "99"
    assert import_command(args) == window.state.lane().settings
    assert dialog.banner.isHidden()  # scatter is off: no --scatter-* flag
    dialog.close()


def test_tabs_show_server_json_llama_code_and_c_call(qtbot, window):
    window.playground.lanes.edit("scatter.strength", 0.3)
    dialog = open_export(window)
    assert not dialog.banner.isHidden()
    body = json.loads(dialog.server_json.toPlainText())
    assert body["prompt"] == window.state.prompt and "scatter" in body["samplers"]
    assert "--scatter-strength 0.3" in dialog.server_launch.text()
    assert "patch adds no request fields" in dialog.server_notes.text()
    compile(dialog.llama_code.toPlainText(), "<llama>", "exec")
    assert "scatter" in dialog.llama_notes.text()
    assert dialog.c_call.toPlainText().startswith("llama_sampler_init_scatter_ext(64, 0.3,")
    dialog.close()


def test_program_choice_and_chat_mode(qtbot, window):
    dialog = ExportDialog(SamplerSettings(seed=1), "/m.gguf", "Hi", window, chat=True, system="Be brief.")
    assert dialog.command().splitlines()[-1].startswith("llama-cli ")
    assert json.loads(dialog.server_json.toPlainText())["messages"][0] == {"role": "system", "content": "Be brief."}
    assert "/v1/chat/completions" in dialog.server_endpoint.text()
    dialog.program.setCurrentIndex(dialog.program.findData("llama-completion"))
    assert dialog.command().splitlines()[-1].startswith("llama-completion ")
    assert "create_completion(" in dialog.llama_code.toPlainText()
    dialog.close()


def test_save_writes_the_script_and_the_prompt_file_beside_it(qtbot, window, tmp_path):
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    window.state.set_prompt(PROMPT)
    dialog = open_export(window)
    set_mode(dialog, "file")
    script = tmp_path / "run.sh"
    assert dialog.save_command(str(script))
    assert dialog.folder.text() == str(tmp_path)
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n") and script.stat().st_mode & stat.S_IXUSR
    args = shlex.split(text.splitlines()[-1])
    prompt_file = Path(args[args.index("-f") + 1])
    assert prompt_file.parent == tmp_path and prompt_file.name == "prompt.txt"
    raw = prompt_file.read_text(encoding="utf-8")
    assert process_escapes(raw[:-1]) == PROMPT  # as llama.cpp's -f reads it
    dialog.close()


def test_copy_writes_the_prompt_file_and_never_replaces_another(qtbot, window, tmp_path):
    tmp_path = tmp_path / "out"  # tmp_path itself holds the window's config
    tmp_path.mkdir()
    window.state.set_prompt(PROMPT)
    (tmp_path / "prompt.txt").write_text("not ours\n", encoding="utf-8")
    dialog = open_export(window)
    set_mode(dialog, "file")
    assert dialog.copy_command(folder=str(tmp_path))
    copied = QGuiApplication.clipboard().text()
    args = shlex.split(copied.splitlines()[-1])
    assert args[args.index("-f") + 1] == str(tmp_path / "prompt-2.txt")
    assert (tmp_path / "prompt.txt").read_text(encoding="utf-8") == "not ours\n"
    assert process_escapes((tmp_path / "prompt-2.txt").read_text(encoding="utf-8")[:-1]) == PROMPT
    assert "prompt-2.txt" in dialog.status.text()
    set_mode(dialog, "inline")
    assert dialog.copy_command()
    assert "-p" in shlex.split(QGuiApplication.clipboard().text().splitlines()[-1])
    assert sorted(os.listdir(tmp_path)) == ["prompt-2.txt", "prompt.txt"]
    dialog.close()


def test_import_dialog_lists_ignored_flags_then_applies(qtbot, window):
    before = window.state.lane().settings
    dialog = ImportDialog(before, window)
    # (--mirostat 0 and --grammar '' are settings now: an order naming a sampler the playground lacks is noted)
    dialog.edit.setPlainText("llama-cli -m x.gguf --temp 0.4 --samplers 'top_k;infill'")
    dialog.apply()
    assert dialog.result_settings.temp == 0.4 and dialog.notes == (
        "--samplers: left out 'infill': the playground has no infill sampler (llama.cpp would run it)",)
    assert "--samplers" in dialog.notes_label.text() and dialog.result() == 0  # shown, not yet accepted
    dialog.apply()
    assert dialog.result() == 1
    dialog = ImportDialog(before, window)
    dialog.edit.setPlainText("--mirostat 3 --temp 0.4")
    dialog.apply()
    assert dialog.result_settings is None and "--mirostat" in dialog.error.text()


def test_import_flags_keeps_the_lanes_seed_and_names_what_it_did_not_apply(qtbot, window):
    window.playground.lanes.set_settings(0, window.state.lane().settings.replace(seed=2024), None)
    dialog = ImportDialog(window.state.lane().settings, window)
    dialog.edit.setPlainText("llama-cli -m x.gguf -c 4096 -n 128 --temp 0.4")
    dialog.apply()
    assert dialog.result() == 1 and dialog.imported is not None
    assert window.actions.take_import(dialog.imported)
    assert window.state.lane().settings.seed == 2024 and window.state.lane().settings.temp == 0.4
    status = window.state.status
    assert "seed 2024 kept" in status and "-n 128" in status and "-c 4096" in status and "-m x.gguf" in status
