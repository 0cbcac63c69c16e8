"""Test configurations of a judged project (pyproject.toml, conftest.py, package.json) that the collection tests
of judge/code/collection.py and of the tests_weakened rule both edit."""

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "app"
version = "1.0"

[tool.pytest.ini_options]
addopts = "-ra --strict-markers"
testpaths = ["tests"]
filterwarnings = ["error"]

[tool.coverage.run]
branch = true
source = ["src"]
"""
CONFTEST = "import os\nimport sys\n\nimport pytest\n\n\n@pytest.fixture\ndef client():\n    return object()\n"
PACKAGE = """{
  "name": "ky",
  "version": "1.2.0",
  "scripts": {
    "build": "tsc",
    "test": "xo && npm run build && ava"
  },
  "files": [
    "distribution/source"
  ],
  "ava": {
    "files": [
      "test/*"
    ],
    "timeout": "10m",
    "nodeArguments": [
      "--loader=tsx"
    ]
  },
  "devDependencies": {
    "ava": "^5.3.1"
  }
}
"""
