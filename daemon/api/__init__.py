"""The HTTP API v1: one module per resource, plus errors, validation and the OpenAPI document."""
