#pragma once

#include "ui/decisiondialog.h"

namespace cs {

// Ask the provider now what happened to this action. States what will be asked and that it
// cannot refund anything; after confirming it shows the answer as it arrives.
class LookupDialog : public DecisionDialog
{
    Q_OBJECT

public:
    explicit LookupDialog(const ActionDetail &detail, QWidget *parent = nullptr);

    // The recorded lookup and the action after it.
    void showResult(const ProviderLookup &lookup, const ActionRecord &after);

protected:
    void refresh() override;
};

} // namespace cs
