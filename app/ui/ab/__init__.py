"""The blind-pairs windows, the A/B test's and the taste tuner's: one dialog (``pairs_dialog``), one round page
(``round_page``) and one set-up page (``pairs_setup``) serve both; each test adds its set-up rows
(``setup_page``, ``taste_setup``), its result page (``tally_view``; ``taste_result`` with ``taste_plot``)
and its dialog (``ab_dialog``, ``taste_dialog``)."""
from .ab_dialog import ABDialog

__all__ = ["ABDialog"]
