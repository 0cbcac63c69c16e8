"""The builders of evals/dev.jsonl: one module per corpus project (python, typescript, go,
rust, java, c, ops, javascript), each with a build(make, cases) that adds that project's
cases; corpus/ holds the projects, and gitrepo, changes, patchtext, cases and labelcheck the
shared plumbing. evals/build_dev.py runs them in order."""
