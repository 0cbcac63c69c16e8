"""Facts about a unified diff: its model, grammar, parser, names, transport, paths and the code-shape lexer."""
