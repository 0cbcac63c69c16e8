"""Signals for the semantic stage: tell-tale shapes of a change that are not wrong on their own (never a rejection).
One module per signal id; the registry (judge/rules/registry.py) gives their order.

Each looks at the work (git's diff with a workspace, else the patch) and only at what the change
adds. Messages name files, line numbers and judge's own labels, never the executor's text, so they
can be shown to the model as trusted facts (_finding.py). What they read of the change is in _lines.py.
"""
