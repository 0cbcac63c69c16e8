"""The cheat set builder's parts (see evals/build_cheats.py and evals/README.md): one module per job."""
