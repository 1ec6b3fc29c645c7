"""Dialect-neutral repositories shared by the SQLite and PostgreSQL stores.

Each repository here is written once against :class:`SqlDatabase` (``?`` placeholders, rows read by
position), so a fix or a new column lands in both backends at once; the backend packages keep only what
truly differs (DDL, full-text search, vectors, connections, migrations).
"""
