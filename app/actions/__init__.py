"""The playground's actions, by area: runs, lanes, analysis."""
