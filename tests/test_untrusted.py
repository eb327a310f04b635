"""mancala.untrusted.read_json: the one reader of untrusted JSON, with the same guards for the
save files, the opening book and the web app (each checked through its own face)."""
import json

import pytest

from mancala import book, storage
from mancala.errors import BookError, InputError, RequestError, SaveFileError
from mancala.untrusted import MAX_DIGITS, read_json

HOSTILE = [
    (b"\xff\xfe{}", "not UTF-8 text, so not JSON"),
    ("", "empty, so not JSON"),
    (" \n\t", "empty, so not JSON"),
    ("\ufeff", "empty, so not JSON"),
    ("{", "not JSON (Expecting property name enclosed in double quotes: line 1 column 2)"),
    ("[1, 2", "not JSON"),
    ('{"a": NaN}', "NaN is not a number JSON may hold here"),
    ("[-Infinity]", "-Infinity is not a number"),
    ("[1e400]", "too large"),
    ("[" + "9" * 20 + "]", "a number with 20 digits, too long"),
    ("[-" + "9" * 5000 + "]", "a number with 5000 digits"),
    ('{"a": 1, "b": {"c": 2, "c": 3}}', "field 'c' appears twice"),
    ("[" * 100000 + "]" * 100000, "JSON nested too deeply"),
]


@pytest.mark.parametrize("raw, words", HOSTILE)
def test_hostile_text_is_refused_in_one_line_of_the_callers_error(raw, words):
    with pytest.raises(InputError) as info:
        read_json(raw, SaveFileError)
    assert type(info.value) is SaveFileError
    assert words in str(info.value) and "\n" not in str(info.value)


def test_what_json_allows_comes_through():
    value = {"seed": 2 ** 63 - 1, "moves": [0, 2, 5], "x": -1.5, "s": "\u00e9t\u00e9", "n": None}
    text = json.dumps(value)
    assert read_json(text, RequestError) == value
    assert read_json(text.encode("utf-8"), RequestError) == value
    assert read_json("\ufeff" + text, RequestError) == value          # Notepad's byte-order mark
    assert len(str(2 ** 63 - 1)) == MAX_DIGITS
    with pytest.raises(RequestError, match="; truncated"):
        read_json("{", RequestError, hint="truncated")


@pytest.mark.parametrize("raw, words", [HOSTILE[i] for i in (0, 6, 9, 11, 12)])
def test_every_face_refuses_the_same_text_the_same_way(raw, words, tmp_path):
    # a save file
    with pytest.raises(SaveFileError, match=words.split("(")[0].strip()):
        storage.loads(raw)
    # the opening book
    path = tmp_path / "openings.json"
    path.write_bytes(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
    with pytest.raises(BookError) as info:
        book.load(path)
    assert words.split("(")[0].strip() in str(info.value) and str(path) in str(info.value)
    # a web request
    from mancala.web.server import decode
    with pytest.raises(RequestError) as info:
        decode(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
    assert str(info.value).startswith("the request body: ") and words.split("(")[0].strip() in str(info.value)
