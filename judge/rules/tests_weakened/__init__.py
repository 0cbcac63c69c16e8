"""The rule tests_weakened, read two ways: by_edits.py reads what the change does to the tests' code, by_collection.py
what it does to the configuration that decides which tests run. Each module's function is named after the id it gives,
as every rule in the registry is."""
