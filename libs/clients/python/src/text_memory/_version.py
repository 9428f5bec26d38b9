__version__ = "0.4.0"
USER_AGENT = f"text-memory-python/{__version__}"
