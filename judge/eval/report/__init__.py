"""The eval run report: one typed EvalReport, rendered to JSON, text, Markdown, JUnit and HTML."""
