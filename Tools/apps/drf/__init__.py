"""A small Django REST framework app over a table of notes: see server.py."""
