"""Go's standard-library behaviour where Python's differs: ``encoding/json`` (``gojson``)
and the ``strings`` and case-folding primitives (``gostrings``) the ports rely on."""
