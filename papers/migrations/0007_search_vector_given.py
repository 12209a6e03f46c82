"""PostgreSQL: one function computes a paper's search vector, and an import may give it.

`papers_search_vector(title, abstract, author_names)` is the expression migration 0002's
trigger computed inline; the trigger now calls it, and an archive import calls it on a
second connection for papers it is about to insert (papers.archive.engines.postgresql.vectors), so the
writer's own connection no longer spends a fifth of a full import in `to_tsvector`.

The trigger keeps a vector given with an INSERT only in a session that set
`cwp.search_vectors_given = on` (the import does, with vectors from the same function);
every other INSERT, and every UPDATE of the text, computes it as before. SQLite: nothing
to do (FTS5 keeps its own index).
"""

from django.db import migrations

FUNCTION = """CREATE OR REPLACE FUNCTION
papers_search_vector(title text, abstract text, names text) RETURNS tsvector AS $$
    SELECT setweight(to_tsvector('cwp_english'::regconfig, coalesce(title, '')), 'A') ||
           setweight(to_tsvector('cwp_english'::regconfig, coalesce(abstract, '')), 'B') ||
           setweight(to_tsvector('cwp_english'::regconfig, coalesce(names, '')), 'C')
$$ LANGUAGE sql STABLE PARALLEL SAFE"""

TRIGGER = """CREATE OR REPLACE FUNCTION papers_paper_search_vector() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' AND NEW.search_vector IS NOT NULL
            AND current_setting('cwp.search_vectors_given', true) = 'on' THEN
        RETURN NEW;
    END IF;
    NEW.search_vector := papers_search_vector(NEW.title, NEW.abstract, NEW.author_names);
    RETURN NEW;
END
$$ LANGUAGE plpgsql"""

TRIGGER_0002 = """CREATE OR REPLACE FUNCTION papers_paper_search_vector() RETURNS trigger AS $$
BEGIN
    NEW.search_vector :=
        setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.title, '')), 'A') ||
        setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.abstract, '')), 'B') ||
        setweight(to_tsvector('cwp_english'::regconfig, coalesce(NEW.author_names, '')), 'C');
    RETURN NEW;
END
$$ LANGUAGE plpgsql"""


def _run(*statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("papers", "0006_drop_covered_fk_indexes")]

    operations = [
        migrations.RunPython(
            _run(FUNCTION, TRIGGER),
            _run(TRIGGER_0002, "DROP FUNCTION IF EXISTS papers_search_vector(text, text, text)"),
        )
    ]
