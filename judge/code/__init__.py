"""Facts about the code a change touches: which files are tests, and what its hunks define, call and skip."""
