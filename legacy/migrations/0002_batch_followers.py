"""A batch names the followers whose follows it copied, or whose feeds it rebuilds (a column
with a default in the database, so that a batch made by code before it can still be
inserted)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("legacy", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="legacybatch",
            name="followers",
            field=models.JSONField(db_default=[], default=list),
        ),
    ]
