__version__ = "0.2.0"
USER_AGENT = f"text-memory-python/{__version__}"
