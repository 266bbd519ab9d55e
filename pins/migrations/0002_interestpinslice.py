"""The slice map of interests' pin lists (``interest_has_pin``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pins", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="InterestPinSlice",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("interest_id", models.BigIntegerField()),
                ("shard", models.IntegerField()),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("interest_id", "shard"),
                                                        name="interest_pin_slice_unique")],
            },
        ),
    ]
