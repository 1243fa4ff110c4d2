"""The event log: event types, codec with upcasters, stores and subscriptions.

This package imports nothing from ``projections``, ``daemon`` or ``plugins``.
"""
