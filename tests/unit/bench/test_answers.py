"""The index's answers (bench/index/answers.py): every question cites each finding it rests on, under one rule."""

import pandas as pd

from bench.index.answers import CLAIM, NONE, QUESTION_TEXT, Question, answer_lines, answers_section, questions
from harness.contract import suites


def board(verdicts):
    return pd.DataFrame(
        [{"finding": f"[{key} claim]({key}.md)", "verdict": v, CLAIM: key} for key, v in verdicts.items()]
    )


def test_every_questions_claim_is_a_registered_finding():
    keys = {c.key: c.kind for name in suites.names() for c in suites.get(name).claims}
    for question in questions():
        assert question.claims and all(keys.get(c) == "finding" for c in question.claims), question.text


def test_every_claim_says_which_question_it_answers_or_that_it_answers_none():
    wrong = [
        f"suites/{name}/suite.yaml: claim {c.key} answers {c.answers!r}"
        for name in suites.names()
        for c in suites.get(name).claims
        if c.answers not in (*QUESTION_TEXT, NONE)
    ]
    assert not wrong, (
        f"each claim names the index question it answers ({', '.join(QUESTION_TEXT)}) or says `answers: {NONE}`:\n"
        + "\n".join(wrong)
    )


def test_each_answer_cites_every_verdict_it_rests_on():
    verdicts = {
        key: v for q in questions() for key, v in zip(q.claims, ["agrees", "disagrees", "inconclusive", "not run"] * 3)
    }
    text = "\n".join(answers_section(board(verdicts), {}))
    for question in questions():
        part = text.split(f"**{question.text}**")[1].split("**")[0]
        for key in question.claims:
            assert f"[{key} claim]({key}.md)" in part, (question.text, key)


def test_agreeing_findings_are_the_answer_and_contradicted_ones_are_said():
    q = Question("Q?", ("a", "b", "c"))
    lines = "\n".join(answer_lines(q, board({"a": "agrees", "b": "disagrees", "c": "inconclusive"}), {}, {}))
    assert "Supported here: [a claim](a.md)." in lines and "Contradicted here: [b claim](b.md)." in lines
    assert "Undecided: [c claim](c.md) (inconclusive)" in lines and "cannot decide" not in lines


def test_a_question_with_no_finding_either_way_says_it_cannot_be_decided():
    q = Question("Q?", ("a", "b"))
    lines = "\n".join(answer_lines(q, board({"a": "inconclusive", "b": "not testable here"}), {}, {}))
    assert "cannot decide it" in lines and "Supported here" not in lines


def test_the_scale_line_reads_parameters_steps_and_seeds_of_the_records():
    frame = pd.DataFrame([{"parameters": 800_000, "profile_settings": {"steps": 500}, "seed": s} for s in (0, 1, 2)])
    q = Question("Q?", ("a",))
    lines = "\n".join(answer_lines(q, board({"a": "agrees"}), {"lm": frame}, {"a": "lm"}))
    assert "Scale: up to 0.8M parameters, 500 training steps, 3 seeds (lm)." in lines
