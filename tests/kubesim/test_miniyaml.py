"""Tests of the YAML subset reader used for apply bodies."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubesim_lib.miniyaml import load  # noqa: E402


class MiniYaml(unittest.TestCase):
    def test_block_document(self):
        doc = load("---\napiVersion: v1\nkind: ConfigMap  # comment\nmetadata:\n  name: x\n"
                   "  labels: {a: \"1\", b: c}\ndata:\n  s: |\n    l1\n    l2\n  f: >-\n    a\n    b\n"
                   "  q: 'it''s'\n  e: \"t\\tx\"\nspec:\n  items:\n  - name: a\n    ports:\n"
                   "    - containerPort: 80\n  - name: b\n  nums:\n  - 1\n  - 2.5\n  - true\n  - ~\n  empty:\n")
        self.assertEqual(doc["metadata"], {"name": "x", "labels": {"a": "1", "b": "c"}})
        self.assertEqual(doc["data"], {"s": "l1\nl2\n", "f": "a b", "q": "it's", "e": "t\tx"})
        self.assertEqual(doc["spec"]["items"], [{"name": "a", "ports": [{"containerPort": 80}]}, {"name": "b"}])
        self.assertEqual(doc["spec"]["nums"], [1, 2.5, True, None])
        self.assertIsNone(doc["spec"]["empty"])

    def test_sequence_at_key_indent(self):
        self.assertEqual(load("a:\n- x\n- y\nb: 1\n"), {"a": ["x", "y"], "b": 1})

    def test_errors(self):
        with self.assertRaises(ValueError):
            load("a: 1\n   b: 2\n")
        with self.assertRaises(ValueError):
            load("a: {x: 1\n")


if __name__ == "__main__":
    unittest.main()
