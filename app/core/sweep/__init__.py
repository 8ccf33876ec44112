"""Sweeps: what a flag really does, measured (diversity against likelihood), for scatter and for temperature.

``plan`` (points, prompts, seeds, in a fixed order), ``prompts``, ``ranges``
(``start:stop:step``), ``runner`` (drives the engine thread with Generate
commands, event by event), ``metrics`` (per sample, from the step records),
``output`` (the CSV and its JSON header, resuming), ``summary`` (bootstrap
intervals, the entropy-matched comparison).  The command line
(``app.cli.sweep``) and the window (``app.ui.sweep``) share all of it.
"""
