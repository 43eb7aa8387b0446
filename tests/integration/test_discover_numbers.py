"""discover binds a number only with named evidence (issue 23): "two", "once", "one of", a
bound ("more than two"), a label ("step 2") and a case considered ("If two replicas") never
bind, and of two quantities a sentence binds to one constant, the one beside its words does."""

from __future__ import annotations

from driftguard.discover import discover

RETRIES = "package c\n\nconst maxChunkRetries = 2\n"


def _bound(tree, files: dict[str, str]) -> list[tuple[str, object]]:
    found = discover(tree(files), jobs=1, limit=None)
    return [(p.facts[0].fact.name, p.claim.to_config().get("phrase")) for p in found.proposals]


def test_numbers_said_of_nothing_never_bind(tree) -> None:
    assert _bound(tree, {
        "pool/pool.go": "package pool\n\nconst (\n\tmaxReplicas = 2\n\tshardCount = 2\n\tretryCount = 1\n)\n",
        "docs/pool.md": "# Pool\n\nIf two replicas disagree, the newest wins. The two shards are flushed in turn. "
                        "Once a retry count is reached, the pool stops. One of the retry counts is kept.\n\n"
                        "The pool runs at most two replicas.\n",
    }) == [("maxReplicas", "at most {value}")]


def test_a_bound_is_no_value(tree) -> None:
    """"greater than two" says what the value must exceed, not what it is."""
    assert _bound(tree, {"c/c.go": RETRIES, "docs/c.md": "# Chunks\n\nKeep max chunk retries greater than two.\n"}) == []


def test_a_small_number_labelling_another_noun_is_no_amount(tree) -> None:
    """"step 2" numbers a step; the sentence that sets the retries binds."""
    assert _bound(tree, {
        "c/c.go": RETRIES,
        "docs/c.md": "# Chunks\n\nMax chunk retries: see step 2.\n\nThe max chunk retries is set to two.\n",
    }) == [("maxChunkRetries", "set to {value}")]


def test_of_two_equal_quantities_the_one_beside_the_constants_words_binds(tree) -> None:
    bound = _bound(tree, {
        "c/c.go": 'package c\n\nimport "time"\n\nconst trashGracePeriod = 7 * 24 * time.Hour\n',
        "docs/c.md": "# Trash\n\nDeleted items keep a seven-day recovery window, and a separate seven-day trash "
                     "grace period applies before purge.\n",
    })
    assert bound == [("trashGracePeriod", "a separate {value}")]


def test_a_number_counting_a_noun_the_name_lacks_binds_only_where_the_name_leads_to_it(tree) -> None:
    """"three concurrent activations" counts activations, not investigations; in "monitored
    node-by-node counts as 3 monitored systems" the number is said of "counts", not of a node."""
    bound = _bound(tree, {
        "c/c.go": "package c\n\nconst maxConcurrentInvestigations = 3\nconst dockerNodeFailureThreshold = 3\n",
        "docs/c.md": "# Plans\n\nThe subscription permits three concurrent activations inside that environment.\n\n"
                     "A 3-node cluster monitored node-by-node counts as 3 monitored systems.\n\n"
                     "At most three concurrent investigations run at once.\n\n"
                     "A docker node is marked failed after 3 failures in a row (the node failure threshold).\n",
    })
    assert sorted(bound) == [("dockerNodeFailureThreshold", "failed after {value}"),
                             ("maxConcurrentInvestigations", "At most {value}")]
