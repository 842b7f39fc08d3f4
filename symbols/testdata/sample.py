import os.path as osp
from .models import User

LIMIT = 10

type Items = list[User]


class Store(Base):
    """Keeps things."""

    def save(self, item: User):
        """Save an item."""
        self.validate(item)
        return helper(item)

    def validate(self, item):
        pass


def helper(x):
    # returns its input
    return osp.join(x)
