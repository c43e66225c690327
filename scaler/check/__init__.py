"""`slo-scaler check`: the launch checklist evaluated against a spec and a live deployment.

Items are pure functions of gathered evidence (spec_items, prom_items, loadtest_items,
k8s_items); the adapters that gather it (prometheus, loadtest, kubernetes) stay at the edges.
"""
