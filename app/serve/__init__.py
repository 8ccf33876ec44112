"""The playground as the backend of a writer's own frontend: llama-server's, OpenAI's and KoboldCpp's
HTTP APIs, each request a run of the engine (scatter included), with the per-field report of what
became of its sampler fields.

**The HTTP stack: Starlette on uvicorn.**  Chosen over aiohttp because Starlette is a small ASGI
toolkit (routes, requests, ``StreamingResponse`` for server-sent events, a CORS middleware, and a
test client) on a server made for exactly this (uvicorn: h11, graceful shutdown, client disconnects
seen by the application), both well kept and widely used; aiohttp bundles its own client and server
and would bring a second HTTP client into the suite beside httpx, which the OpenAI package already uses.

The package is one more client of the engine's face, beside the window and the command line: it
imports the face, the Qt-free core (the formats' readers: one mapping per API) and nothing of the
window; the command line (``app/cli/serve.py``) makes the engine and hands it over.

* :mod:`~app.serve.runner`: one engine, requests queued in order, one run at a time; the hooks
  (:class:`~app.serve.runner.Hooks`) by which the window hears each request (started, step records,
  ended) and may replace its sampler settings (a lane set to override requests);
* :mod:`~app.serve.mapping`: a request's sampler fields through the formats' converters;
* :mod:`~app.serve.native`, :mod:`~app.serve.openai_api`, :mod:`~app.serve.kobold_api`,
  :mod:`~app.serve.info`: the endpoints; :mod:`~app.serve.web`: routes, the key, CORS, bounded bodies,
  errors in each API's shape; :mod:`~app.serve.server`: uvicorn.

Every response carries the per-field report in ``scatter_report`` (``format``, ``summary``, and per field
``field``, ``status``: exact / converted / emulated / dropped / unknown, ``detail``: the formula or why),
and its summary in the ``X-Scatter-Report`` header; a stream carries it in its last event.
"""
