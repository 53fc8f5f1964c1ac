import unittest

from bookmobile import CopyCondition, ShelfCatalog, TitleRecord
from bookmobile.catalog import DEFAULT_SHELF_PREFIX
from bookmobile.errors import CatalogLookupError, LendingError

HARBOUR_ATLAS = TitleRecord("978-0-00-000001-1", "Harbour Atlas", "Ines Moreau", 1998)


class ShelfCodeTests(unittest.TestCase):
    def test_normalize_shelf_code_uppercases_and_joins(self):
        self.assertEqual(ShelfCatalog.normalize_shelf_code("  fic 12 "), "FIC-12")

    def test_bare_number_gets_default_prefix(self):
        self.assertEqual(ShelfCatalog.normalize_shelf_code("42"), f"{DEFAULT_SHELF_PREFIX}-42")

    def test_malformed_code_is_rejected(self):
        with self.assertRaises(CatalogLookupError) as caught:
            ShelfCatalog.normalize_shelf_code("shelf without digits")
        self.assertIsInstance(caught.exception, LendingError)


class ShelfCatalogTests(unittest.TestCase):
    def setUp(self):
        self.catalog = ShelfCatalog.from_title_rows(
            [
                {"shelf_code": "map-1", "isbn": HARBOUR_ATLAS.isbn, "heading": HARBOUR_ATLAS.heading,
                 "author_name": HARBOUR_ATLAS.author_name, "publication_year": "1998"},
                {"shelf_code": "map-2", "isbn": HARBOUR_ATLAS.isbn, "heading": HARBOUR_ATLAS.heading,
                 "author_name": HARBOUR_ATLAS.author_name, "publication_year": "1998",
                 "condition": "withdrawn"},
                {"shelf_code": "fic-7", "isbn": "978-0-00-000002-8", "heading": "Salt Orchard",
                 "author_name": "Tomas Lind", "publication_year": 2011},
            ]
        )

    def test_from_title_rows_shelves_every_row(self):
        self.assertEqual(len(self.catalog), 3)
        self.assertEqual(self.catalog.locate_copy("MAP-1").title_record, HARBOUR_ATLAS)

    def test_withdrawn_copies_are_not_available(self):
        available = self.catalog.available_copies_of(HARBOUR_ATLAS.isbn)
        self.assertEqual([c.shelf_code for c in available], ["MAP-1"])
        self.assertFalse(CopyCondition.WITHDRAWN.is_lendable)

    def test_locate_unknown_copy_raises(self):
        with self.assertRaises(CatalogLookupError):
            self.catalog.locate_copy("MAP-99")

    def test_shelf_codes_by_author(self):
        self.assertEqual(
            self.catalog.shelf_codes_by_author(),
            {"Ines Moreau": ["MAP-1", "MAP-2"], "Tomas Lind": ["FIC-7"]},
        )


if __name__ == "__main__":
    unittest.main()
