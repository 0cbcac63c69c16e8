"""Read-only facts from the workspace a step ran in: git, evidence files, the ledger."""
