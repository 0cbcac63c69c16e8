"""The retry driver: runs an executor for one step, judges each attempt, feeds each rejection back as a fix_regression."""
