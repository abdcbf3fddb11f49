"""The object kinds scenes are made of: OpenMoji's colour artwork (npm `openmoji`, pinned in
tools/data/package.json; CC BY-SA 4.0, https://openmoji.org), each by its caption word, plural,
OpenMoji hexcode and group. The order is fixed: it is the order in which a caption names the kinds
of a two-kind scene (docs/MODEL_FORMAT.md, the captioner's grammar) and the order of the model
file's `objects` metadata."""
from pathlib import Path

OPENMOJI_VERSION = "17.0.0"
OPENMOJI_LICENSE = "CC BY-SA 4.0"
OPENMOJI_DIR = Path(__file__).resolve().parent.parent / "node_modules" / "openmoji"

# (word, plural, hexcode, group)
OBJECTS = (
    ("cat", "cats", "1F408", "animal"),
    ("dog", "dogs", "1F415", "animal"),
    ("cow", "cows", "1F404", "animal"),
    ("pig", "pigs", "1F416", "animal"),
    ("horse", "horses", "1F40E", "animal"),
    ("rabbit", "rabbits", "1F407", "animal"),
    ("bird", "birds", "1F426", "animal"),
    ("fish", "fish", "1F41F", "animal"),
    ("turtle", "turtles", "1F422", "animal"),
    ("elephant", "elephants", "1F418", "animal"),
    ("apple", "apples", "1F34E", "food"),
    ("pear", "pears", "1F350", "food"),
    ("banana", "bananas", "1F34C", "food"),
    ("carrot", "carrots", "1F955", "food"),
    ("strawberry", "strawberries", "1F353", "food"),
    ("lemon", "lemons", "1F34B", "food"),
    ("pizza", "pizzas", "1F355", "food"),
    ("car", "cars", "1F697", "vehicle"),
    ("bus", "buses", "1F68C", "vehicle"),
    ("bicycle", "bicycles", "1F6B2", "vehicle"),
    ("boat", "boats", "26F5", "vehicle"),
    ("airplane", "airplanes", "2708", "vehicle"),
    ("tree", "trees", "1F333", "plant"),
    ("cactus", "cacti", "1F335", "plant"),
    ("tulip", "tulips", "1F337", "plant"),
    ("house", "houses", "1F3E0", "household"),
    ("key", "keys", "1F511", "household"),
    ("ball", "balls", "26BD", "household"),
    ("umbrella", "umbrellas", "2602", "household"),
    ("teapot", "teapots", "1FAD6", "household"),
    ("clock", "clocks", "23F0", "household"),
    ("sun", "suns", "2600", "sky"),
)
NAMES = tuple(o[0] for o in OBJECTS)
PLURALS = tuple(o[1] for o in OBJECTS)
HEXCODES = tuple(o[2] for o in OBJECTS)
KIND_OF_WORD = {**{w: k for k, w in enumerate(NAMES)}, **{w: k for k, w in enumerate(PLURALS)}}


def svg_path(kind):
    """The colour SVG of kind (an index into OBJECTS); a clear error when the npm package is missing."""
    path = OPENMOJI_DIR / "color" / "svg" / f"{HEXCODES[kind]}.svg"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `npm ci` in tools/data (openmoji {OPENMOJI_VERSION})")
    return path


def metadata():
    """[{"name", "plural", "hexcode"}] of every kind, in order (the model file's `objects`): a
    caption names a kind by either word."""
    return [{"name": name, "plural": plural, "hexcode": hexcode} for name, plural, hexcode in zip(NAMES, PLURALS, HEXCODES)]
