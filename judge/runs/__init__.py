"""`judge run`: execution evidence records (pure hashing and status), running a command, artifacts on disk."""
