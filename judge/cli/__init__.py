"""The command line: every argparse line of judge lives in this package."""
