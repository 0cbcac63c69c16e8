"""What the tests share: builders of cases and repositories, SYNTHETIC model servers, eval sets, fuzzing bounds,
cassettes. Imported as ``helpers.NAME`` (pyproject: pytest's ``pythonpath = ["tests"]``)."""
