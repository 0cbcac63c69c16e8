"""`judge serve`: the HTTP service over the pipeline (Starlette on uvicorn)."""
