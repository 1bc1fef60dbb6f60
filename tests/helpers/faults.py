"""Files whose writes fail part-way (a full disk, a Ctrl-C), for the tests of what a
failed write leaves behind."""


class FailingWrites:
    """The file ``f`` whose writes stop part-way with ``exc``: where ``fails()`` says so
    (default: every write), the first ``1 / part`` of the data is written, then ``exc``
    raised; the other writes go through. A context manager that closes ``f``."""

    def __init__(self, f, exc, fails=lambda: True, part=2):
        self.f, self.exc, self.fails, self.part = f, exc, fails, part

    def write(self, data):
        if not self.fails():
            return self.f.write(data)
        self.f.write(bytes(data)[: len(data) // self.part])
        raise self.exc

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()
