"""Renderings of an eval run: text (terminal), JSON (stable, schemas/eval-report.schema.json), and more."""
