"""Stage 1: the JSON contracts — pydantic models, schemas/ as the source of truth, bounded JSON readers."""
