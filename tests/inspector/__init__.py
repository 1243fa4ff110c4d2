"""The inspector over HTTP and in a browser."""
