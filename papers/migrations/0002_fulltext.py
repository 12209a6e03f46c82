"""Full-text search DDL, per engine (papers/search/ queries it).

SQLite: an FTS5 external-content table over title, abstract and author names, kept in
sync with papers_paper by triggers (porter stemming, diacritics folded, prefix indexes
for type-ahead). PostgreSQL: a stored generated tsvector weighing title (A) over
abstract (B) over authors (C), kept by a trigger on those columns, with a GIN index.
"""

from django.db import migrations

SQLITE_FORWARD = [
    # While the importer holds a row here (inside its own batch transaction, so no
    # other connection ever sees it), the triggers stand aside and the importer
    # indexes the batch in one statement: several times faster than row triggers.
    "CREATE TABLE papers_fts_pause (reason TEXT NOT NULL)",
    """CREATE VIRTUAL TABLE papers_paper_fts USING fts5(
        title, abstract, author_names,
        content='papers_paper', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2', prefix='2 3'
    )""",
    """CREATE TRIGGER papers_paper_fts_insert AFTER INSERT ON papers_paper
    WHEN NOT EXISTS (SELECT 1 FROM papers_fts_pause) BEGIN
        INSERT INTO papers_paper_fts(rowid, title, abstract, author_names)
        VALUES (new.id, new.title, new.abstract, new.author_names);
    END""",
    """CREATE TRIGGER papers_paper_fts_delete AFTER DELETE ON papers_paper
    WHEN NOT EXISTS (SELECT 1 FROM papers_fts_pause) BEGIN
        INSERT INTO papers_paper_fts(papers_paper_fts, rowid, title, abstract, author_names)
        VALUES ('delete', old.id, old.title, old.abstract, old.author_names);
    END""",
    """CREATE TRIGGER papers_paper_fts_update AFTER UPDATE OF title, abstract, author_names
    ON papers_paper WHEN NOT EXISTS (SELECT 1 FROM papers_fts_pause) BEGIN
        INSERT INTO papers_paper_fts(papers_paper_fts, rowid, title, abstract, author_names)
        VALUES ('delete', old.id, old.title, old.abstract, old.author_names);
        INSERT INTO papers_paper_fts(rowid, title, abstract, author_names)
        VALUES (new.id, new.title, new.abstract, new.author_names);
    END""",
    "INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('rebuild')",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS papers_paper_fts_update",
    "DROP TRIGGER IF EXISTS papers_paper_fts_delete",
    "DROP TRIGGER IF EXISTS papers_paper_fts_insert",
    "DROP TABLE IF EXISTS papers_paper_fts",
    "DROP TABLE IF EXISTS papers_fts_pause",
]
POSTGRES_FORWARD = [
    # Text search configurations that fold diacritics (Nyström = Nystrom) like SQLite's
    # remove_diacritics: english stemming (cwp_english) and no stemming (cwp_simple).
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    "CREATE TEXT SEARCH CONFIGURATION cwp_english (COPY = english)",
    """ALTER TEXT SEARCH CONFIGURATION cwp_english
        ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem""",
    "CREATE TEXT SEARCH CONFIGURATION cwp_simple (COPY = simple)",
    """ALTER TEXT SEARCH CONFIGURATION cwp_simple
        ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple""",
    # A column kept by a BEFORE trigger that fires only when the indexed text changes
    # (a stored generated column would be recomputed on every UPDATE, counts included).
    "ALTER TABLE papers_paper ADD COLUMN search_vector tsvector",
    """CREATE FUNCTION papers_paper_search_vector() RETURNS trigger AS $$
    BEGIN
        NEW.search_vector :=
            setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.title, '')), 'A') ||
            setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.abstract, '')), 'B') ||
            setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.author_names, '')), 'C');
        RETURN NEW;
    END
    $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER papers_paper_search_vector
    BEFORE INSERT OR UPDATE OF title, abstract, author_names ON papers_paper
    FOR EACH ROW EXECUTE FUNCTION papers_paper_search_vector()""",
    "CREATE INDEX papers_paper_search_gin ON papers_paper USING gin (search_vector)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS papers_paper_search_gin",
    "DROP TRIGGER IF EXISTS papers_paper_search_vector ON papers_paper",
    "DROP FUNCTION IF EXISTS papers_paper_search_vector()",
    "ALTER TABLE papers_paper DROP COLUMN IF EXISTS search_vector",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS cwp_simple",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS cwp_english",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        )
    ]
