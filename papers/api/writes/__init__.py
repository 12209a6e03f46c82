"""The write API: the sixteen write calls of paperswithcode-client 0.3.1, papers, code
links and execution records. `fields` says what each call's body takes (one declarative
place), `operations` what each call does, `views` who may make it and how it answers."""
