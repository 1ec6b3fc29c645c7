"""``ws.conversations``: questions asked as a conversation (:class:`kgrag.generation.conversation.Conversations`)."""

from __future__ import annotations

from kgrag.generation.conversation import ConversationReply, Conversations
from kgrag.workspace.components import Components
from kgrag.workspace.query_api import QueryAPI

__all__ = ["ConversationAPI", "ConversationReply"]


class ConversationAPI(Conversations):
    """Follow-up questions over one workspace; conversations kept in its store."""

    def __init__(self, parts: Components, querying: QueryAPI) -> None:
        super().__init__(parts, querying)
