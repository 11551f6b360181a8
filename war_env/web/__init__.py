"""War in the browser: ``war-play --web`` serves one page where a person plays against a bot or agent.

``protocol`` is the messages between the page and the server (plain data); ``app`` is the server
(Starlette and uvicorn, the ``web`` extra): one ``PlaySession`` per browser tab, played on the server
with the project's own engine and clock; ``static/`` is the page (plain HTML, CSS and JS, package data).
Importing this package imports neither Starlette nor uvicorn.
"""
