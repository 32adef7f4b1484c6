"""The cashier app's PySide6 user interface. Qt is imported only in ``qt``; station
events reach the widgets through ``bridge``; ``launch.main`` shows the first window and
``app.run`` carries the start on qasync."""
