"""Seed 004's gates: the checks a step (or its template) requires, evaluated after the deterministic rules."""
