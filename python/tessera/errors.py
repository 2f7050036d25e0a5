"""Exceptions of the tessera Python package.

PyPTO's documentation names InvalidType, InvalidArgument and InvalidVal; they exist here. They are
also builtin TypeError / ValueError subclasses, so code written for PyPTO Pro (which raises the
builtins) keeps working with ``pytest.raises(ValueError)`` / ``pytest.raises(TypeError)``.
InvalidType derives from both TypeError and ValueError: PyPTO raises ValueError for a bad key type
(``kernel[None, 1, [0]]``) where the seed documents InvalidType.
"""


class TesseraError(RuntimeError):
    """A failure reported by the tessera runtime; ``code`` is the tsrStatus value."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class InvalidType(TypeError, ValueError):
    """A value of the wrong type (a TilingKey field value that is not an int, a bad annotation)."""


class InvalidArgument(ValueError):
    """A wrong set of arguments: a missing or extra key field, a bad launch form, a bad tensor."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class InvalidVal(ValueError):
    """A value outside what is allowed: a key value not in its field's values, an array length."""


class NotFound(TesseraError):
    """An operator or package that does not exist."""


class KernelError(TesseraError):
    """A kernel failed while running (the stream's sticky error; checked-mode findings)."""


class KernelSyntaxError(InvalidVal):
    """A kernel body outside the supported language: rendered with file:line:col and a caret."""

    def __init__(self, message, filename=None, lineno=None, col=None, source_line=None,
                 hint=None, end_col=None):
        self.msg = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.hint = hint
        text = message
        if filename is not None and lineno is not None:
            text += "\n  --> %s:%d:%d" % (filename, lineno, (col or 0) + 1)
            if source_line is not None:
                stripped = source_line.rstrip("\n")
                width = max(1, (end_col - col) if end_col and col is not None and end_col > col
                            else 1)
                text += "\n   | " + stripped + "\n   | " + " " * (col or 0) + "^" * width
        if hint:
            text += "\n  hint: " + hint
        super().__init__(text)


class CompileError(TesseraError):
    """g++ refused the generated source: the first error (mapped to the Python line by #line),
    the kept source and the command."""
