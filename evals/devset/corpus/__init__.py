"""Small but realistic projects that seed the throwaway repositories of evals/build_dev.py."""
from .projects import PROJECT_LANG, PROJECTS

__all__ = ["PROJECTS", "PROJECT_LANG"]
