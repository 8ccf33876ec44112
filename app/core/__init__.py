"""The Qt-free core: the one state and everything it is made of (text trees, history, chat, analysis,
presets, sessions, sweeps, A/B and taste, other tools' formats, llama.cpp knowledge, bans).

It never imports Qt and never reaches llama_cpp: it talks to the engine through ``app.engine.face``.
"""
