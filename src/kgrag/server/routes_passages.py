"""``/v1/workspaces/{workspace}/passages/{chunk_id}``: one passage in full, with where it comes from and
its sentences' offsets (so a client can highlight the cited sentence without splitting text itself)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from kgrag.documents.sentences import split_sentences
from kgrag.server.deps import WorkspaceDep
from kgrag.server.errors import ApiError

router = APIRouter(tags=["documents"])


class SentenceSpan(BaseModel):
    """A sentence of the passage: ``text[start:end]``."""

    start: int
    end: int


class PassageOut(BaseModel):
    """A chunk's full text with its provenance."""

    id: str
    text: str
    document_id: str
    source_name: str = Field(description="The document's file name (as uploaded), never a server path.")
    title: str
    section: str | None = Field(description="The last heading at or before the passage.")
    sections: list[str] = Field(description="Every section the passage touches, in order.")
    page: int | None = Field(
        description="The page's number in the file (1 for the first), where the document has pages."
    )
    page_label: str | None = Field(
        description='The page as printed ("iii", "12"): the PDF\'s label for it, else its number as text.'
    )
    span: list[int] = Field(description="[start, end) of the passage in its document's text.")
    ord: int = Field(description="Position of the passage in its document (0 = first).")
    sentences: list[SentenceSpan]


@router.get(
    "/passages/{chunk_id}",
    response_model=PassageOut,
    summary="One passage: full text, source, section, page and sentence offsets",
    responses={404: {"description": "No such passage (or its document was removed)."}},
)
def passage(hosted: WorkspaceDep, chunk_id: str) -> PassageOut:
    found = hosted.ws.documents.chunks([chunk_id])
    ref = hosted.ws.documents.sources([chunk_id]).get(chunk_id)
    if not found or ref is None:
        raise ApiError(404, "not_found", f"no passage {chunk_id[:80]!r}; passage ids come from answers' citations")
    chunk = found[0]
    return PassageOut(
        id=chunk.id,
        text=chunk.text,
        document_id=chunk.doc_id,
        source_name=hosted.source_name(ref.source),
        title=ref.title,
        section=ref.section,
        sections=list(ref.sections),
        page=ref.page,
        page_label=ref.shown_page,
        span=[chunk.char_start, chunk.char_end],
        ord=chunk.ord,
        sentences=[SentenceSpan(start=a, end=b) for a, b in split_sentences(chunk.text)],
    )
