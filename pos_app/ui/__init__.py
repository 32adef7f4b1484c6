"""The cashier app's PySide6 user interface. Qt is imported only in ``qt``; station
events reach the widgets through ``bridge``; ``app.main`` starts it on qasync."""
