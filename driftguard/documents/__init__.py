"""The documents stage: markdown parsed once into sections, tables, sentences and
code spans with exact offsets (``reader``, ``model``, ``inline``, ``table_rows``),
and the claims a rule reads from them (``claims``).

Nothing is imported here, so a run served from the cache never loads markdown-it.
"""
