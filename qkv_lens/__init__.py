"""qkv-lens, the application: the ``qkv-lens`` command, the lesson loader
(defaults read from the shipped ``lesson.toml``), the text tables, the scene
registry and the render pipeline.  It runs the scenes (``scenes/``) as manim
processes by their file path and never imports them; both use ``qkv_math``.
"""
__all__: list[str] = []
